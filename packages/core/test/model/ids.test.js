// The id grammar (DECISIONS §2): the cases of crates/model/src/ids.rs, with the Rust messages
// (positions count code points; characters as Rust's escape_debug writes them). The verifier's
// differential test compares the same messages with the Rust CLI on random ids.
import { describe, expect, it } from "vitest";
import { checkCapabilityName, checkComponentType, checkExternalToolId, checkInstanceId, checkProcedureId } from "../../dist/model/ids.js";

const ok = (check, ids) => {
  for (const id of ids) expect(check(id), id).toBeNull();
};

describe("component type: 1-8 segments [a-z][a-zA-Z0-9_-]{0,31}, at most 96 characters", () => {
  it("accepts", () => ok(checkComponentType, ["devices", "devices.table", "a", "a.b.c.d.e.f.g.h", "my-list_2.rowItem", "a".repeat(32), Array(8).fill("abcdefghijk").join(".")]));

  it("refuses with the Rust messages", () => {
    const cases = [
      ["", "component type is empty"],
      ["Devices.table", `segment "Devices" must start with a lowercase letter a-z (found 'D' at position 0)`],
      ["devices.Table", `segment "Table" must start with a lowercase letter a-z (found 'T' at position 8)`],
      ["devXces.t@ble", "character '@' at position 9 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["dé", "character 'é' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["éa.b", `segment "éa" must start with a lowercase letter a-z (found 'é' at position 0)`],
      ["ab.c😀.x:y", "character '😀' at position 4 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["ab.c.x:y", "character ':' at position 6 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      [".a", "component type has an empty segment at position 0 (a leading or trailing '.', or two dots in a row)"],
      ["a.", "component type has an empty segment at position 2 (a leading or trailing '.', or two dots in a row)"],
      ["a..b", "component type has an empty segment at position 2 (a leading or trailing '.', or two dots in a row)"],
      [`a.${"b".repeat(33)}`, `segment "${"b".repeat(33)}" is 33 characters long; at most 32 are allowed`],
      ["a.b.c.d.e.f.g.h.i", "component type has 9 segments; at most 8 are allowed (the extra one starts at position 16)"],
      [Array(8).fill("abcdefghijkl").join("."), "component type is 103 characters long; at most 96 are allowed"],
      // Characters as Rust's escape_debug writes them.
      ["a\tb", "character '\\t' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["a'b", "character '\\'' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ['a"b', `character '\\"' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)`],
      ["a\\b", "character '\\\\' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["a\u200bb", "character '\\u{200b}' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["ae\u0301", "character '\\u{301}' at position 2 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["a\u00a0", "character '\\u{a0}' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["a b", "character ' ' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
      ["a\0", "character '\\0' at position 1 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
    ];
    for (const [id, message] of cases) expect(checkComponentType(id), JSON.stringify(id)).toBe(message);
  });

  it("a value that is not a string is empty", () => {
    for (const v of [undefined, null, 1, {}]) expect(checkComponentType(v)).toBe("component type is empty");
  });
});

describe("capability name: [a-z][a-zA-Z0-9_]{0,47}", () => {
  it("accepts", () => ok(checkCapabilityName, ["readState", "a", "select_rows2", "a".repeat(48)]));
  it("refuses", () => {
    expect(checkCapabilityName("")).toBe("capability name is empty");
    expect(checkCapabilityName("ReadState")).toBe(`capability name "ReadState" must start with a lowercase letter a-z (found 'R' at position 0)`);
    expect(checkCapabilityName("_x")).toBe(`capability name "_x" must start with a lowercase letter a-z (found '_' at position 0)`);
    expect(checkCapabilityName("read-state")).toBe("character '-' at position 4 is not allowed in a capability name (allowed: a-z A-Z 0-9 _)");
    expect(checkCapabilityName("read.state")).toBe("character '.' at position 4 is not allowed in a capability name (allowed: a-z A-Z 0-9 _)");
    expect(checkCapabilityName("a".repeat(49))).toBe(`capability name "${"a".repeat(49)}" is 49 characters long; at most 48 are allowed`);
    expect(checkCapabilityName("😀")).toBe(`capability name "😀" must start with a lowercase letter a-z (found '😀' at position 0)`);
  });
});

describe("procedure id: domain: + 2-8 segments", () => {
  it("accepts", () => ok(checkProcedureId, ["domain:devices.delete", "domain:a.b.c.d.e.f.g.h", "domain:crm-x.export_all"]));
  it("refuses", () => {
    const cases = [
      ["", "procedure id is empty"],
      ["devices.delete", `procedure id needs the prefix "domain:"`],
      ["external:x.y", `procedure id needs the prefix "domain:"`],
      ["domain", `procedure id needs the prefix "domain:"`],
      ["domain:devices", `procedure id needs at least 2 segments separated by '.' (e.g. "domain:devices.delete")`],
      ["domain:", "procedure id has an empty segment at position 7 (a leading or trailing '.', or two dots in a row)"],
      ["domain:devices.Delete", `segment "Delete" must start with a lowercase letter a-z (found 'D' at position 15)`],
      ["domain:a.b.c.d.e.f.g.h.i", "procedure id has 9 segments; at most 8 are allowed (the extra one starts at position 23)"],
      ["domain:a b.c", "character ' ' at position 8 is not allowed in a segment (allowed: a-z A-Z 0-9 _ -)"],
    ];
    for (const [id, message] of cases) expect(checkProcedureId(id), id).toBe(message);
  });
});

describe("external tool id: external: + 1-8 segments", () => {
  it("accepts", () => ok(checkExternalToolId, ["external:crm", "external:crm.export", "external:a.b.c.d.e.f.g.h"]));
  it("refuses", () => {
    expect(checkExternalToolId("domain:crm.export")).toBe(`external tool id needs the prefix "external:"`);
    expect(checkExternalToolId("external:")).toBe("external tool id has an empty segment at position 9 (a leading or trailing '.', or two dots in a row)");
    expect(checkExternalToolId("external:a.b.c.d.e.f.g.h.i")).toBe("external tool id has 9 segments; at most 8 are allowed (the extra one starts at position 25)");
    expect(checkExternalToolId("external:9lives")).toBe(`segment "9lives" must start with a lowercase letter a-z (found '9' at position 9)`);
  });
});

describe("instance id: [A-Za-z0-9][A-Za-z0-9_.:-]{0,127}", () => {
  it("accepts", () => ok(checkInstanceId, ["default", "A", "9", "row:42", "a.b-c_d:E", "x".repeat(128)]));
  it("refuses", () => {
    expect(checkInstanceId("")).toBe("instance id is empty");
    expect(checkInstanceId("-x")).toBe(`instance id "-x" must start with a letter or digit (found '-' at position 0)`);
    expect(checkInstanceId("row/42")).toBe("character '/' at position 3 is not allowed in an instance id (allowed: A-Z a-z 0-9 _ . : -)");
    expect(checkInstanceId("x".repeat(129))).toBe("instance id is 129 characters long; at most 128 are allowed");
    expect(checkInstanceId("r😀w")).toBe("character '😀' at position 1 is not allowed in an instance id (allowed: A-Z a-z 0-9 _ . : -)");
  });
});
